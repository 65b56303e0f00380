<?xml version="1.0"?>
<!-- SPDX-License-Identifier: GPL-2.0-or-later -->
<!--
  faultmon: OCF resource agent meta-data (ra-api-1.dtd) to a man(7) page.

  xsltproc -\-novalid -\-stringparam provider faultmon -\-stringparam version 0.1.0 \
      ra2man.xsl apache.xml > ocf_faultmon_apache.7

  With -\-stringparam details FILE (an absolute path), FILE's
  /details/longdesc replaces the (short) agent longdesc and each
  /details/parameter[@name]/longdesc replaces that parameter's (short)
  longdesc: the meta-data stays short for pcs and crm, the page complete.

  A longdesc is split into paragraphs at blank lines; a paragraph whose
  first line is indented is an example and kept as it is (.nf).  Text is
  escaped for roff: backslashes, and a '.' or "'" at the start of a line.
-->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
<xsl:output method="text" encoding="UTF-8"/>
<xsl:strip-space elements="*"/>

<xsl:param name="provider" select="'faultmon'"/>
<xsl:param name="version" select="''"/>
<xsl:param name="details" select="''"/>
<xsl:variable name="extra" select="document($details)/details"/>

<xsl:variable name="nl" select="'&#10;'"/>

<!-- Replace every occurrence of $from in $text with $to. -->
<xsl:template name="replace">
  <xsl:param name="text"/>
  <xsl:param name="from"/>
  <xsl:param name="to"/>
  <xsl:choose>
    <xsl:when test="contains($text, $from)">
      <xsl:value-of select="substring-before($text, $from)"/>
      <xsl:value-of select="$to"/>
      <xsl:call-template name="replace">
        <xsl:with-param name="text" select="substring-after($text, $from)"/>
        <xsl:with-param name="from" select="$from"/>
        <xsl:with-param name="to" select="$to"/>
      </xsl:call-template>
    </xsl:when>
    <xsl:otherwise>
      <xsl:value-of select="$text"/>
    </xsl:otherwise>
  </xsl:choose>
</xsl:template>

<!-- Escape text for roff. -->
<xsl:template name="roff">
  <xsl:param name="text"/>
  <xsl:variable name="a">
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="$text"/>
      <xsl:with-param name="from" select="'\'"/>
      <xsl:with-param name="to" select="'\e'"/>
    </xsl:call-template>
  </xsl:variable>
  <xsl:variable name="b">
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="concat($nl, $a)"/>
      <xsl:with-param name="from" select="concat($nl, '.')"/>
      <xsl:with-param name="to" select="concat($nl, '\&amp;.')"/>
    </xsl:call-template>
  </xsl:variable>
  <xsl:variable name="c">
    <xsl:call-template name="replace">
      <xsl:with-param name="text" select="$b"/>
      <xsl:with-param name="from" select="concat($nl, &quot;'&quot;)"/>
      <xsl:with-param name="to" select="concat($nl, &quot;\&amp;'&quot;)"/>
    </xsl:call-template>
  </xsl:variable>
  <xsl:value-of select="substring($c, 2)"/>
</xsl:template>

<!-- Drop leading and trailing newlines. -->
<xsl:template name="trim-lines">
  <xsl:param name="text"/>
  <xsl:choose>
    <xsl:when test="starts-with($text, $nl)">
      <xsl:call-template name="trim-lines">
        <xsl:with-param name="text" select="substring($text, 2)"/>
      </xsl:call-template>
    </xsl:when>
    <xsl:when test="substring($text, string-length($text)) = $nl">
      <xsl:call-template name="trim-lines">
        <xsl:with-param name="text" select="substring($text, 1, string-length($text) - 1)"/>
      </xsl:call-template>
    </xsl:when>
    <xsl:otherwise>
      <xsl:value-of select="$text"/>
    </xsl:otherwise>
  </xsl:choose>
</xsl:template>

<!-- One paragraph: filled text, or an indented example kept as is. -->
<xsl:template name="paragraph">
  <xsl:param name="text"/>
  <xsl:param name="macro" select="'.PP'"/>
  <xsl:variable name="body">
    <xsl:call-template name="roff">
      <xsl:with-param name="text" select="$text"/>
    </xsl:call-template>
  </xsl:variable>
  <xsl:choose>
    <xsl:when test="starts-with($text, ' ')">
      <xsl:value-of select="concat($macro, $nl)"/>
      <xsl:text>.RS 4&#10;.nf&#10;</xsl:text>
      <xsl:value-of select="$body"/>
      <xsl:text>&#10;.fi&#10;.RE&#10;</xsl:text>
    </xsl:when>
    <xsl:otherwise>
      <xsl:value-of select="concat($macro, $nl)"/>
      <xsl:value-of select="$body"/>
      <xsl:text>&#10;</xsl:text>
    </xsl:otherwise>
  </xsl:choose>
</xsl:template>

<!-- Paragraphs separated by blank lines. -->
<xsl:template name="paragraphs">
  <xsl:param name="text"/>
  <xsl:param name="macro" select="'.PP'"/>
  <xsl:variable name="sep" select="concat($nl, $nl)"/>
  <xsl:variable name="clean">
    <xsl:call-template name="trim-lines">
      <xsl:with-param name="text" select="$text"/>
    </xsl:call-template>
  </xsl:variable>
  <xsl:choose>
    <xsl:when test="$clean = ''"/>
    <xsl:when test="contains($clean, $sep)">
      <xsl:call-template name="paragraph">
        <xsl:with-param name="text" select="substring-before($clean, $sep)"/>
        <xsl:with-param name="macro" select="$macro"/>
      </xsl:call-template>
      <xsl:call-template name="paragraphs">
        <xsl:with-param name="text" select="substring-after($clean, $sep)"/>
        <xsl:with-param name="macro" select="$macro"/>
      </xsl:call-template>
    </xsl:when>
    <xsl:otherwise>
      <xsl:call-template name="paragraph">
        <xsl:with-param name="text" select="$clean"/>
        <xsl:with-param name="macro" select="$macro"/>
      </xsl:call-template>
    </xsl:otherwise>
  </xsl:choose>
</xsl:template>

<xsl:template name="upper">
  <xsl:param name="text"/>
  <xsl:value-of select="translate($text, 'abcdefghijklmnopqrstuvwxyz-', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ_')"/>
</xsl:template>

<xsl:template match="/resource-agent">
  <xsl:variable name="page" select="concat('ocf_', $provider, '_', @name)"/>
  <xsl:text>.\" Generated from the agent's meta-data by metadata/ra2man.xsl; do not edit.&#10;</xsl:text>
  <xsl:text>.TH </xsl:text>
  <xsl:call-template name="upper">
    <xsl:with-param name="text" select="$page"/>
  </xsl:call-template>
  <xsl:text> 7 "" "</xsl:text>
  <xsl:value-of select="concat($provider, ' ', $version)"/>
  <xsl:text>" "OCF resource agents"&#10;</xsl:text>

  <xsl:text>.SH NAME&#10;</xsl:text>
  <xsl:value-of select="$page"/>
  <xsl:text> \- </xsl:text>
  <xsl:call-template name="roff">
    <xsl:with-param name="text" select="normalize-space(shortdesc)"/>
  </xsl:call-template>
  <xsl:text>&#10;</xsl:text>

  <xsl:text>.SH SYNOPSIS&#10;.nf&#10;</xsl:text>
  <xsl:value-of select="concat('\fBpcs resource create\fR \fIRESOURCE\fR ocf:', $provider, ':', @name)"/>
  <xsl:text> [\fIPARAMETER\fR=\fIVALUE\fR]...&#10;</xsl:text>
  <xsl:value-of select="concat('\fBcrm configure primitive\fR \fIRESOURCE\fR ocf:', $provider, ':', @name)"/>
  <xsl:text> [params \fIPARAMETER\fR=\fIVALUE\fR...]&#10;.fi&#10;</xsl:text>

  <xsl:text>.SH DESCRIPTION&#10;</xsl:text>
  <xsl:choose>
    <xsl:when test="$details != '' and $extra/longdesc">
      <xsl:call-template name="paragraphs">
        <xsl:with-param name="text" select="$extra/longdesc"/>
      </xsl:call-template>
    </xsl:when>
    <xsl:otherwise>
      <xsl:call-template name="paragraphs">
        <xsl:with-param name="text" select="longdesc"/>
      </xsl:call-template>
    </xsl:otherwise>
  </xsl:choose>

  <xsl:text>.SH PARAMETERS&#10;</xsl:text>
  <xsl:for-each select="parameters/parameter">
    <xsl:text>.TP&#10;\fB</xsl:text>
    <xsl:value-of select="@name"/>
    <xsl:text>\fR (</xsl:text>
    <xsl:value-of select="content/@type"/>
    <xsl:if test="content/@default and content/@default != ''">
      <xsl:text>, default: \fI</xsl:text>
      <xsl:call-template name="roff">
        <xsl:with-param name="text" select="content/@default"/>
      </xsl:call-template>
      <xsl:text>\fR</xsl:text>
    </xsl:if>
    <xsl:if test="@required = '1'">
      <xsl:text>, required</xsl:text>
    </xsl:if>
    <xsl:if test="@unique = '1'">
      <xsl:text>, unique</xsl:text>
    </xsl:if>
    <xsl:if test="@deprecated = '1'">
      <xsl:text>, deprecated</xsl:text>
    </xsl:if>
    <xsl:text>)&#10;</xsl:text>
    <xsl:call-template name="roff">
      <xsl:with-param name="text" select="normalize-space(shortdesc)"/>
    </xsl:call-template>
    <xsl:text>.&#10;</xsl:text>
    <xsl:variable name="name" select="@name"/>
    <xsl:choose>
      <xsl:when test="$details != '' and $extra/parameter[@name = $name]/longdesc">
        <xsl:call-template name="paragraphs">
          <xsl:with-param name="text" select="$extra/parameter[@name = $name]/longdesc"/>
          <xsl:with-param name="macro" select="'.IP'"/>
        </xsl:call-template>
      </xsl:when>
      <xsl:otherwise>
        <xsl:call-template name="paragraphs">
          <xsl:with-param name="text" select="longdesc"/>
          <xsl:with-param name="macro" select="'.IP'"/>
        </xsl:call-template>
      </xsl:otherwise>
    </xsl:choose>
  </xsl:for-each>

  <xsl:text>.SH ACTIONS&#10;</xsl:text>
  <xsl:for-each select="actions/action">
    <xsl:text>.TP&#10;\fB</xsl:text>
    <xsl:value-of select="@name"/>
    <xsl:text>\fR&#10;timeout </xsl:text>
    <xsl:value-of select="@timeout"/>
    <xsl:if test="@interval">
      <xsl:value-of select="concat(', interval ', @interval)"/>
    </xsl:if>
    <xsl:if test="@depth">
      <xsl:value-of select="concat(', depth ', @depth)"/>
    </xsl:if>
    <xsl:text>&#10;</xsl:text>
  </xsl:for-each>

  <xsl:text>.SH SEE ALSO&#10;</xsl:text>
  <xsl:text>\fBfaultmon\fR(1), \fBpcs\fR(8), \fBcrm\fR(8), \fBocf-tester\fR(8)&#10;</xsl:text>
</xsl:template>

</xsl:stylesheet>
